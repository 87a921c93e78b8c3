/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-symmetry: the translations of a topology's NPU coordinates that are automorphisms of the
 * network, and whether a collective's rank programs are translates of one another. Flow level
 * uses them to simulate one NPU of a symmetric collective for all (doc/scale.rst, "Ranks
 * aggregated").
 *
 * Contract
 * --------
 * The group. A topology with dims (tn-topology.h: rank = c0 + P0 (c1 + P1 (...))) has the
 * translations t_g, one per NPU rank g: t_g moves the NPU of coordinates c to c + coords(g)
 * (mod P_d in every dim). The group acts on NPUs freely and transitively, so t_g is the one
 * translation taking rank 0 to rank g. tn_symmetry_create accepts the topology only if every
 * translation extends to an automorphism of the whole network:
 *  - a switch is moved with its NPUs: a switch's anchor is its NPU neighbour of smallest rank,
 *    and the image of the switch under t_g is the switch neighbour of t_g(anchor) through a
 *    link of the same dim as the anchor's link to it; an NPU must have one switch neighbour
 *    per dim, so the image is unique;
 *  - every link has an NPU at one end at least (a link between two switches has no such
 *    image: fat-trees, leaf-spines and BiGraphs are refused, TN_EUNSUPPORTED naming the link);
 *  - for the generators of the group (a shift of 1 along each dim, which generate every
 *    translation), every link's image exists with the same rate, latency and dim, the k-th
 *    of parallel links mapping to the k-th, and no two switches have the same image.
 * Tori, rings, fully connected and single-switch topologies and hier systems (ring, fc and
 * switch dims) pass; meshes (their border NPUs have fewer links) and files without such
 * structure are refused with the first link or switch that breaks it.
 *
 * Orbits. Since every link touches an NPU and the group acts freely on NPUs, it acts freely
 * on links: the orbit of a link has exactly npu_count links. tn_symmetry_canonical_link
 * names an orbit by its representative, the image of the link that moves its NPU end (its
 * source when both ends are NPUs) to rank 0 (with a period, below). So in a run where every NPU
 * does what rank 0 does, translated, the flows of one orbit of flows put on a link of orbit o as
 * many flows as the orbit's representative path has links in o: the fluid rates of all links follow
 * from the representative links alone.
 *
 * Period. tn_symmetry_set_period(s, R) narrows the group to the translations t_g with g a
 * multiple of R, where R = P_0 ... P_(d-1) k and k divides P_d (so the multiples add without a
 * carry out of dim d and form a subgroup H of npu_count / R elements). H acts freely on NPUs
 * with the orbits {x : x mod R = r}: the ranks below R are the representatives, each standing
 * for its residue class (a data-parallel replica of R NPUs, repeated npu_count / R times, is
 * one representative set). Orbits of links then have npu_count / R links, and the canonical
 * link moves the link's NPU end to its representative x mod R. Period 1 (the default) is the
 * whole group: NPU 0 stands for all.
 *
 * Programs. tn_symmetry_check_program tells whether the rank programs of a collective are
 * translates: for a translation t of H and a rank a on a representative NPU, the program of
 * the rank b whose NPU is t(NPU of a) has the ops of a's program with every peer's NPU moved
 * by t, and the same send flag, op, match, length and dependency lists (offsets, steps and
 * chunks may differ: they do not change when anything happens). Every rank's representative
 * NPU must hold a rank of the collective; a collective whose ranks are all representatives is
 * accepted as it is (each of its translates is another collective). Checked for every
 * translation when H has at most `exhaustive` elements, else for H's generators and for
 * `samples` further translations spread over H (deterministic). `length_slack` > 0
 * lets lengths differ by up to that many bytes: a buffer that the ranks' parts do not
 * divide evenly gives some parts one byte more (the remainder), in an order that depends on
 * the rank, so such programs are translates only up to those bytes; a run that takes rank
 * a's lengths for every rank then approximates (doc/scale.rst measures the error).
 *
 * Ownership: tn_symmetry_create/tn_symmetry_destroy; the topology must outlive the symmetry
 * and not change. Memory O(nodes + links).
 */
#ifndef TN_SYMMETRY_H
#define TN_SYMMETRY_H

#include "tn-error.h"
#include "tn-program.h"
#include "tn-topology.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    typedef struct tn_symmetry tn_symmetry;

    /** The translations of topo (see contract); TN_EUNSUPPORTED naming what breaks them. */
    tn_status tn_symmetry_create(const tn_topology* topo, tn_symmetry** out, tn_error* err);

    /** Free a symmetry; NULL is ignored. */
    void tn_symmetry_destroy(tn_symmetry* s);

    /**
     * Narrow the group to the translations by multiples of period (see contract): the ranks
     * below period stand for their residue classes. TN_EINVAL when period is not of the form
     * P_0 ... P_(d-1) k with k dividing P_d.
     */
    tn_status tn_symmetry_set_period(tn_symmetry* s, uint32_t period, tn_error* err);

    /** \return the period (1 unless set): the number of representative NPUs. */
    uint32_t tn_symmetry_period(const tn_symmetry* s);

    /** \return the topology's NPU count. */
    uint32_t tn_symmetry_npu_count(const tn_symmetry* s);

    /** \return the rank of t_g(NPU of rank x): coordinates added dim by dim. */
    uint32_t tn_symmetry_shift_rank(const tn_symmetry* s, uint32_t g, uint32_t x);

    /** \return the g with t_g(rank from) = rank to. */
    uint32_t tn_symmetry_translation(const tn_symmetry* s, uint32_t from, uint32_t to);

    /** \return the image of a node (NPU or switch) under t_g. */
    uint32_t tn_symmetry_node_image(const tn_symmetry* s, uint32_t g, uint32_t node);

    /** \return the image of a directed link under t_g. */
    uint32_t tn_symmetry_link_image(const tn_symmetry* s, uint32_t g, uint32_t link);

    /** \return the representative of the link's orbit (see contract). */
    uint32_t tn_symmetry_canonical_link(const tn_symmetry* s, uint32_t link);

    /**
     * Whether the programs of p are translates (see contract). node_of_rank maps the
     * program's ranks to topology nodes (NULL: rank r is NPU rank r). TN_OK if they are;
     * TN_EUNSUPPORTED with the first rank, op and field that differ; other codes for
     * failures of the generator.
     */
    tn_status tn_symmetry_check_program(const tn_symmetry* s,
                                        const tn_program* p,
                                        const uint32_t* node_of_rank,
                                        uint32_t exhaustive,
                                        uint32_t samples,
                                        uint64_t length_slack,
                                        tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_SYMMETRY_H */
