/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_LINK_HELPER_H
#define ROCE_LINK_HELPER_H

#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/trace-helper.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class PcapFileWrapper;
class RoceSwitch;

/**
 * \ingroup training-net
 * Builds RoCE links: two RoceNetDevices joined by a RoceChannel, each added as a port of the
 * RoceSwitch aggregated to its node (created with the switch factory attributes if missing).
 * Offers EnablePcap* (DLT_EN10MB, full Ethernet frames, transmitted and received) and
 * EnableAscii* for RoceNetDevices. roce-nic's RoceHelper uses (or inherits) this class.
 */
class RoceLinkHelper : public PcapHelperForDevice, public AsciiTraceHelperForDevice
{
  public:
    RoceLinkHelper();
    ~RoceLinkHelper() override = default;

    /**
     * \param name attribute of ns3::RoceNetDevice (DataRate, Mtu, PfcEnableMask, ...)
     * \param value value
     */
    void SetDeviceAttribute(std::string name, const AttributeValue& value);
    /**
     * \param name attribute of ns3::RoceChannel (Delay)
     * \param value value
     */
    void SetChannelAttribute(std::string name, const AttributeValue& value);
    /**
     * \param name attribute of ns3::RoceSwitch used when a node gets its RoceSwitch
     * \param value value
     */
    void SetSwitchAttribute(std::string name, const AttributeValue& value);

    /**
     * Link two nodes. Port indices are in the order links are installed on each node.
     * \param a one end \param b other end
     * \return the two devices (a's first)
     */
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b);
    /**
     * \param node node
     * \return its RoceSwitch, aggregated now if missing
     */
    Ptr<RoceSwitch> GetOrInstallSwitch(Ptr<Node> node);

  private:
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;
    void EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                             std::string prefix,
                             Ptr<NetDevice> nd,
                             bool explicitFilename) override;

  protected:
    ObjectFactory m_deviceFactory;  //!< devices
    ObjectFactory m_channelFactory; //!< channels
    ObjectFactory m_switchFactory;  //!< switches
};

/**
 * \ingroup training-net
 * \brief pcap files of RoCE devices whose failed writes are reported (unlike
 * PcapHelperForDevice::EnablePcapAll, which aborts when a file cannot be opened and never
 * reports a full disk).
 *
 * The frames are RoceLinkHelper::EnablePcap's: one file per device, named as EnablePcap names
 * them (PREFIX-node-device.pcap), full Ethernet frames sent and received (the device's Sniffer
 * trace) with the ICRC filled in (RoceIcrcTrailer::PcapSink), DLT_EN10MB.
 */
class RocePcapFiles
{
  public:
    /**
     * Open one file per device and hook it to the device.
     * \param prefix file name prefix
     * \param devices RoceNetDevices (other devices are skipped)
     * \param error "FILE: cannot open for writing" on failure
     * \return true on success
     */
    bool Open(const std::string& prefix, const NetDeviceContainer& devices, std::string* error);

    /**
     * Close every file (call after Simulator::Run).
     * \param error "FILE: writing failed" for the first file that failed
     * \return true if every frame reached its file
     */
    bool Close(std::string* error);

    /** \return the number of files */
    size_t GetN() const
    {
        return m_files.size();
    }

  private:
    std::vector<std::pair<std::string, Ptr<PcapFileWrapper>>> m_files; //!< name, file
};

} // namespace ns3

#endif // ROCE_LINK_HELPER_H
