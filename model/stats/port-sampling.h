/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Which ports a StatsRecorder samples (attribute PortSampling): the modes, the per-dimension
 * rule and the spill of the busiest-K mode.
 */
#ifndef PORT_SAMPLING_H
#define PORT_SAMPLING_H

#include "ns3/attribute.h"
#include "ns3/ptr.h"
#include "ns3/tn-db.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief A value of StatsRecorder::PortSampling: which ports get port_sample rows.
 *
 * - `all`: every port (the ports whose counters copy another's at flow-symmetric level only
 *   with PortCopies);
 * - `none`: no port_sample row (as PortSamples=false);
 * - `per-dimension`: one port per class of directed link (PerDimensionPorts);
 * - `busiest:K` (K >= 1): the K ports that sent the most tx_bytes over the run, with every
 *   row `all` would give them (PortSampleSpill).
 */
struct PortSamplingMode
{
    /// The modes.
    enum Kind
    {
        ALL,
        NONE,
        PER_DIMENSION,
        BUSIEST
    };

    Kind kind{ALL};      //!< the mode
    uint32_t busiest{0}; //!< K of busiest:K

    /**
     * \param text "all", "none", "per-dimension" or "busiest:K" (K a whole number >= 1 below
     * 2^32, no sign, space or unit) \param mode set on success \param why set on failure
     * \return true when the text is a mode
     */
    static bool Parse(const std::string& text, PortSamplingMode* mode, std::string* why);

    /** \return the text Parse reads back */
    std::string ToString() const;
};

/**
 * The checker of StatsRecorder::PortSampling: a StringValue that PortSamplingMode::Parse
 * accepts, so Config::SetDefault, SetAttribute and the strict option and scenario readers
 * (AttributeSettings) refuse any other text.
 * \return the checker
 */
Ptr<const AttributeChecker> MakePortSamplingChecker();

/// One directed link as the per-dimension rule sees it.
struct PortSamplingLink
{
    uint32_t node; //!< sending node
    uint32_t port; //!< its port (the link's src_port)
    uint32_t peer; //!< receiving node
    int dim;       //!< the link's dimension (-1: none)
    int sign;      //!< +1 / -1 along a ring, torus or mesh dimension between NPUs, else 0
};

/**
 * The links of a topology for PerDimensionPorts: the sign of a link between two NPUs of a
 * ring, torus or mesh dimension is +1 when the receiver's coordinate in that dimension is
 * the sender's + 1 (modulo the size), else -1 (a dimension of size 2 has +1 only).
 * \param topo the topology \return one entry per directed link, in link id order
 */
std::vector<PortSamplingLink> PortSamplingLinks(const tn_topology* topo);

/**
 * The per-dimension rule. A node's tier is its hop distance from the nearest NPU (NPUs 0; a
 * fat-tree's edge, aggregation and core switches 1, 2, 3; a leaf-spine's leaves 1 and
 * spines 2; a hier system's switches 1; a node no NPU reaches has the tier of none, one class
 * of its own). A directed link's class is (its sender's tier, its receiver's tier, its
 * dimension, its sign). Each class is sampled at one port: that of its lowest-numbered
 * sending node, the lowest-numbered such port there. So a torus:4x4 gives NPU 0's +x, -x,
 * +y and -y ports (4 ports; a mesh's -x port is NPU 1's), a fattree:k=4 six (host up, edge
 * down and up, aggregation down and up, core down), a hier system one per dimension and
 * direction (ring dims +/-; NPU to switch and switch to NPU for a switch dim).
 * \param links every directed link of the network (PortSamplingLinks)
 * \param npu npu[v]: node v is an NPU (its size: the node count)
 * \return the chosen (node, port) pairs, sorted
 */
std::vector<std::pair<uint32_t, uint32_t>> PerDimensionPorts(
    const std::vector<PortSamplingLink>& links,
    const std::vector<bool>& npu);

/**
 * \ingroup training-net
 * \brief The rows of busiest:K until the run ends.
 *
 * Which ports carried the most bytes is known only at the end, and the K busiest of one tick
 * are not those of the run: every row `all` would write goes to an unlinked temporary file
 * (tmpfile(3), deleted when closed or when the process ends) with the index of its port,
 * and the per-port totals are kept in memory (8 bytes a port). At the end, Replay writes the
 * rows of the K ports of largest total (ties: lower node, then lower port) in the order they
 * were taken. Memory stays that of the ports' state whatever the run's length; the file holds
 * what `all` would have written only while the run lasts, each row as variable-length
 * integers (a zero column is one byte: about 30 bytes a row at flow level, against 144 for
 * the row itself).
 */
class PortSampleSpill
{
  public:
    PortSampleSpill() = default;
    ~PortSampleSpill();
    PortSampleSpill(const PortSampleSpill&) = delete;
    PortSampleSpill& operator=(const PortSampleSpill&) = delete;

    /**
     * \param index the port's index in the recorder \param row its row
     * \param why set on failure \return false when the file cannot be written
     */
    bool Add(uint32_t index, const tn_db_port_sample& row, std::string* why);

    /**
     * The K ports of largest total, by index.
     * \param k K \param keyOf (node, port) of each index, for the ties
     * \return chosen[index]
     */
    std::vector<bool> Busiest(uint32_t k,
                              const std::vector<std::pair<uint32_t, uint32_t>>& keyOf) const;

    /**
     * Hand the rows of the chosen ports to `write` in the order they were added, then drop
     * the file. \param chosen chosen[index] \param write returns false to stop
     * \param why set on a read failure \return false on a read failure or when write stopped
     */
    template <typename Write>
    bool Replay(const std::vector<bool>& chosen, Write write, std::string* why)
    {
        bool ok = Rewind(why);
        uint32_t index = 0;
        tn_db_port_sample row{};
        while (ok && m_file && Next(&index, &row))
        {
            if (index < chosen.size() && chosen[index])
            {
                ok = write(row);
            }
        }
        if (ok && m_file && std::ferror(m_file))
        {
            *why = "busiest:K: the temporary file of the port samples cannot be read";
            ok = false;
        }
        Close();
        return ok;
    }

    /** \return the rows added */
    uint64_t GetRows() const
    {
        return m_rows;
    }

  private:
    /**
     * The next row of the file. \param index set to its port's index \param row set to it
     * \return false at the end
     */
    bool Next(uint32_t* index, tn_db_port_sample* row);
    bool Rewind(std::string* why);
    void Close();

    std::FILE* m_file{nullptr};
    std::vector<uint64_t> m_totals; //!< tx_bytes per port index
    uint64_t m_rows{0};
};

} // namespace ns3

#endif // PORT_SAMPLING_H
