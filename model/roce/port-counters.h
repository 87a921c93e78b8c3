/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PORT_COUNTERS_H
#define PORT_COUNTERS_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief What a port shows a sampler at one instant: cumulative counters since the start and
 * the state of its queues now. StatsRecorder turns the differences between two samples into
 * one row of the port_sample table.
 */
struct PortCounterValues
{
    /// Queues of a port: 8 data priorities and the control queue.
    static constexpr uint32_t QUEUES = 9;

    uint64_t txBytes{0};           //!< frame bytes started
    uint64_t txPackets{0};         //!< frames started
    uint64_t queueBytes[QUEUES]{}; //!< bytes queued now, per queue
    int64_t pausedNs{0};           //!< time paused, summed over the priorities
    uint64_t ecnMarks{0};          //!< packets ECN-marked on egress
    uint64_t drops{0};             //!< packets dropped
    uint8_t pausedMask{0};         //!< priorities paused now
    /// time the transmitter was busy so far, the frame on the wire counted up to now (the
    /// wire bits sent in an interval are its growth over the interval x the rate)
    int64_t busyNs{0};
    /// when the port last moved data: the start of its last data frame (packet level; PFC
    /// and control frames do not count, they keep flowing in a PFC deadlock), or now while
    /// a flow crosses it (flow level); -1: never. A stall watch reads it: a transfer longer
    /// than the watch's timeout moves bytes without finishing anything.
    int64_t dataAtNs{-1};
};

/**
 * \ingroup training-net
 * \brief Which of many ports' counters may have changed, so that a sampler reads only those
 * (flow level: the links flows crossed, FlowNetwork). Each port it follows has a key
 * (PortCounters::GetPortActivity); several ports may share one (a flow-symmetric orbit).
 * A sampler registers as a watcher, then asks at each sample: a port whose key is not given
 * back has the counters it had at that watcher's previous question.
 */
class PortActivity
{
  public:
    virtual ~PortActivity() = default;

    /**
     * Follow the ports from now on for a new watcher.
     * \return its id, for TakeMovedPorts
     */
    virtual uint32_t WatchPorts() = 0;

    /**
     * \param watcher an id from WatchPorts
     * \param moved set to the keys whose ports' counters may have changed since the
     * watcher's previous call (the first call: since WatchPorts), each once, in no order
     */
    virtual void TakeMovedPorts(uint32_t watcher, std::vector<uint32_t>* moved) = 0;

    /**
     * Stop following the ports for a watcher: its lists are freed and its id may be given
     * again by WatchPorts. An id not watching (never given, or unwatched already, or a source
     * disposed since) is ignored, so that a watcher may let go in any order of disposal.
     * \param watcher an id from WatchPorts
     */
    virtual void UnwatchPorts(uint32_t watcher) = 0;
};

/**
 * \ingroup training-net
 * \brief The ports of a node as a sampler reads them: a small interface the forwarding object
 * of a node implements (RoceSwitch), or an adapter for devices that keep no counters of their
 * own (the point-to-point port probe of model/stats). Reading has no side effect.
 */
class PortCounters
{
  public:
    virtual ~PortCounters() = default;

    /** \return number of ports */
    virtual uint32_t GetNCounterPorts() const = 0;

    /**
     * \param port port index, < GetNCounterPorts()
     * \param values its counters now
     */
    virtual void ReadPortCounters(uint32_t port, PortCounterValues* values) const = 0;

    /**
     * \param port port index, < GetNCounterPorts()
     * \return whether the port's counters are by construction those of another port (a link
     * of a flow-symmetric network that is a translate of its orbit's representative): a
     * sampler may skip it and lose nothing
     */
    virtual bool IsPortCopy(uint32_t port) const
    {
        (void)port;
        return false;
    }

    /**
     * \param port port index, < GetNCounterPorts()
     * \param key set to the port's key in the returned source
     * \return what tells when the port's counters change (the ports of one fabric share
     * it; valid while the port can be read), or null: the sampler reads the port every time
     */
    virtual PortActivity* GetPortActivity(uint32_t port, uint32_t* key) const
    {
        (void)port;
        (void)key;
        return nullptr;
    }
};

} // namespace ns3

#endif // PORT_COUNTERS_H
