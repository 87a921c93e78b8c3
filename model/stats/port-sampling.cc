/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "port-sampling.h"

#include "ns3/predicate-checker.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <tuple>

namespace ns3
{

bool
PortSamplingMode::Parse(const std::string& text, PortSamplingMode* mode, std::string* why)
{
    PortSamplingMode m;
    const std::string busiest = "busiest:";
    if (text == "all" || text == "none" || text == "per-dimension")
    {
        m.kind = text == "all" ? ALL : text == "none" ? NONE : PER_DIMENSION;
    }
    else if (text.compare(0, busiest.size(), busiest) == 0)
    {
        const std::string k = text.substr(busiest.size());
        // the whole text, a whole number: "busiest:1e3", "busiest:-1", "busiest: 4" are refused
        const bool digits =
            !k.empty() && k.size() <= 10 && k.find_first_not_of("0123456789") == std::string::npos;
        const uint64_t v = digits ? std::stoull(k) : 0;
        if (v < 1 || v > UINT32_MAX)
        {
            *why = "'" + text + "': K of busiest:K must be a whole number from 1 to 4294967295";
            return false;
        }
        m.kind = BUSIEST;
        m.busiest = uint32_t(v);
    }
    else
    {
        *why = "'" + text + "' is not all, none, per-dimension or busiest:K";
        return false;
    }
    *mode = m;
    return true;
}

std::string
PortSamplingMode::ToString() const
{
    switch (kind)
    {
    case NONE:
        return "none";
    case PER_DIMENSION:
        return "per-dimension";
    case BUSIEST:
        return "busiest:" + std::to_string(busiest);
    default:
        return "all";
    }
}

namespace
{

/// A StringValue read from any text: ns-3's aborts on a space, which a checker must refuse.
class PortSamplingText : public StringValue
{
  public:
    bool DeserializeFromString(std::string value, Ptr<const AttributeChecker> checker) override
    {
        Set(value);
        return true;
    }
};

} // namespace

Ptr<const AttributeChecker>
MakePortSamplingChecker()
{
    return MakePredicateChecker<StringValue, StringChecker, PortSamplingText>(
        "ns3::StringValue",
        [](const StringValue& text) {
            PortSamplingMode mode;
            std::string why;
            return PortSamplingMode::Parse(text.Get(), &mode, &why);
        },
        [] { return std::string("all, none, per-dimension or busiest:K (K >= 1)"); });
}

std::vector<PortSamplingLink>
PortSamplingLinks(const tn_topology* topo)
{
    const uint32_t dims = tn_topology_dim_count(topo);
    std::vector<uint32_t> from(dims);
    std::vector<uint32_t> to(dims);
    std::vector<PortSamplingLink> links;
    links.reserve(tn_topology_link_count(topo));
    for (uint32_t i = 0; i < tn_topology_link_count(topo); ++i)
    {
        const tn_link* l = tn_topology_link(topo, i);
        PortSamplingLink s{l->src, l->src_port, l->dst, l->dim, 0};
        const bool npus = tn_topology_node_kind(topo, l->src) == TN_NODE_NPU &&
                          tn_topology_node_kind(topo, l->dst) == TN_NODE_NPU;
        const tn_dim_info* dim =
            l->dim >= 0 && uint32_t(l->dim) < dims ? tn_topology_dim(topo, l->dim) : nullptr;
        tn_error err{};
        if (npus && dim &&
            (dim->kind == TN_DIM_RING || dim->kind == TN_DIM_TORUS || dim->kind == TN_DIM_MESH) &&
            tn_topology_npu_coords(topo, tn_topology_node_rank(topo, l->src), from.data(), &err) ==
                TN_OK &&
            tn_topology_npu_coords(topo, tn_topology_node_rank(topo, l->dst), to.data(), &err) ==
                TN_OK)
        {
            const uint32_t size = dim->size;
            s.sign = (from[l->dim] + 1) % size == to[l->dim] ? 1 : -1;
        }
        links.push_back(s);
    }
    return links;
}

std::vector<std::pair<uint32_t, uint32_t>>
PerDimensionPorts(const std::vector<PortSamplingLink>& links, const std::vector<bool>& npu)
{
    // tiers: a breadth-first walk from every NPU at once
    const uint32_t none = UINT32_MAX;
    std::vector<uint32_t> tier(npu.size(), none);
    std::vector<std::vector<uint32_t>> next(npu.size());
    for (const PortSamplingLink& l : links)
    {
        if (l.node < npu.size() && l.peer < npu.size())
        {
            next[l.node].push_back(l.peer);
        }
    }
    std::deque<uint32_t> queue;
    for (uint32_t v = 0; v < npu.size(); ++v)
    {
        if (npu[v])
        {
            tier[v] = 0;
            queue.push_back(v);
        }
    }
    while (!queue.empty())
    {
        const uint32_t v = queue.front();
        queue.pop_front();
        for (uint32_t w : next[v])
        {
            if (tier[w] == none)
            {
                tier[w] = tier[v] + 1;
                queue.push_back(w);
            }
        }
    }
    // the representative of each class: the least (node, port)
    typedef std::tuple<uint32_t, uint32_t, int, int> Class;
    std::map<Class, std::pair<uint32_t, uint32_t>> chosen;
    for (const PortSamplingLink& l : links)
    {
        const uint32_t a = l.node < tier.size() ? tier[l.node] : none;
        const uint32_t b = l.peer < tier.size() ? tier[l.peer] : none;
        const std::pair<uint32_t, uint32_t> port(l.node, l.port);
        auto it = chosen.emplace(Class(a, b, l.dim, l.sign), port).first;
        it->second = std::min(it->second, port);
    }
    std::vector<std::pair<uint32_t, uint32_t>> ports;
    for (const auto& c : chosen)
    {
        ports.push_back(c.second);
    }
    std::sort(ports.begin(), ports.end());
    ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
    return ports;
}

namespace
{

/// v as a little-endian base-128 varint (7 bits a byte, the high bit: more follow).
void
PutVarint(std::string* out, uint64_t v)
{
    while (v >= 0x80)
    {
        out->push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out->push_back(static_cast<char>(v));
}

/// Signed values (times, paused time) zig-zag encoded: small magnitudes stay short.
uint64_t
Zig(int64_t v)
{
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

int64_t
Unzig(uint64_t u)
{
    return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
}

bool
GetVarint(std::FILE* f, uint64_t* v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7)
    {
        const int c = std::getc(f);
        if (c == EOF)
        {
            return false;
        }
        x |= static_cast<uint64_t>(c & 0x7f) << shift;
        if (!(c & 0x80))
        {
            *v = x;
            return true;
        }
    }
    return false;
}

} // namespace

PortSampleSpill::~PortSampleSpill()
{
    Close();
}

bool
PortSampleSpill::Add(uint32_t index, const tn_db_port_sample& row, std::string* why)
{
    if (!m_file)
    {
        m_file = std::tmpfile();
        if (!m_file)
        {
            *why = "busiest:K: no temporary file for the port samples (TMPDIR)";
            return false;
        }
    }
    if (index >= m_totals.size())
    {
        m_totals.resize(index + 1, 0);
    }
    m_totals[index] += row.tx_bytes;
    std::string bytes;
    PutVarint(&bytes, index);
    PutVarint(&bytes, Zig(row.time_ns));
    PutVarint(&bytes, Zig(row.interval_ns));
    PutVarint(&bytes, row.node);
    PutVarint(&bytes, row.port);
    PutVarint(&bytes, row.tx_bytes);
    PutVarint(&bytes, row.tx_packets);
    uint64_t bits = 0;
    static_assert(sizeof bits == sizeof row.utilisation, "a double in 64 bits");
    std::memcpy(&bits, &row.utilisation, sizeof bits);
    PutVarint(&bytes, bits);
    for (uint64_t q : row.queue_bytes)
    {
        PutVarint(&bytes, q);
    }
    PutVarint(&bytes, Zig(row.paused_ns));
    PutVarint(&bytes, row.ecn_marks);
    PutVarint(&bytes, row.drops);
    if (std::fwrite(bytes.data(), 1, bytes.size(), m_file) != bytes.size())
    {
        *why = "busiest:K: the temporary file of the port samples cannot be written";
        return false;
    }
    ++m_rows;
    return true;
}

bool
PortSampleSpill::Next(uint32_t* index, tn_db_port_sample* row)
{
    uint64_t v[8 + TN_DB_PRIORITIES + 1 + 3];
    for (uint64_t& x : v)
    {
        if (!GetVarint(m_file, &x))
        {
            return false;
        }
    }
    *index = static_cast<uint32_t>(v[0]);
    row->time_ns = Unzig(v[1]);
    row->interval_ns = Unzig(v[2]);
    row->node = static_cast<uint32_t>(v[3]);
    row->port = static_cast<uint32_t>(v[4]);
    row->tx_bytes = v[5];
    row->tx_packets = v[6];
    std::memcpy(&row->utilisation, &v[7], sizeof row->utilisation);
    for (uint32_t q = 0; q <= TN_DB_PRIORITIES; ++q)
    {
        row->queue_bytes[q] = v[8 + q];
    }
    row->paused_ns = Unzig(v[9 + TN_DB_PRIORITIES]);
    row->ecn_marks = v[10 + TN_DB_PRIORITIES];
    row->drops = v[11 + TN_DB_PRIORITIES];
    return true;
}

std::vector<bool>
PortSampleSpill::Busiest(uint32_t k, const std::vector<std::pair<uint32_t, uint32_t>>& keyOf) const
{
    std::vector<uint32_t> order(keyOf.size());
    for (uint32_t i = 0; i < order.size(); ++i)
    {
        order[i] = i;
    }
    auto total = [this](uint32_t i) { return i < m_totals.size() ? m_totals[i] : 0; };
    const std::size_t n = std::min<std::size_t>(k, order.size());
    std::partial_sort(order.begin(), order.begin() + n, order.end(), [&](uint32_t a, uint32_t b) {
        return total(a) != total(b) ? total(a) > total(b) : keyOf[a] < keyOf[b];
    });
    std::vector<bool> chosen(keyOf.size(), false);
    for (std::size_t i = 0; i < n; ++i)
    {
        chosen[order[i]] = true;
    }
    return chosen;
}

bool
PortSampleSpill::Rewind(std::string* why)
{
    if (m_file && (std::fflush(m_file) != 0 || std::fseek(m_file, 0, SEEK_SET) != 0))
    {
        *why = "busiest:K: the temporary file of the port samples cannot be read";
        return false;
    }
    return true;
}

void
PortSampleSpill::Close()
{
    if (m_file)
    {
        std::fclose(m_file);
        m_file = nullptr;
    }
}

} // namespace ns3
