/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-version: the version of training-net, as in the VERSION file at the
 * module's top (a test fails when the two differ).
 */
#ifndef TN_VERSION_H
#define TN_VERSION_H

#define TN_VERSION "0.1.0"

/** The ns-3 release this module is developed and tested against. */
#define TN_NS3_VERSION "3.37"

#endif /* TN_VERSION_H */
