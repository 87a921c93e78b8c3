/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-error: status codes and error messages of the training-net C core.
 *
 * Contract: every fallible core function returns a tn_status and takes a
 * `tn_error *err` as its last argument. On failure it returns a non-zero
 * status and, when err is not NULL, fills err->message with a sentence that
 * names what was wrong: the parameter or key, and for file input the file
 * name and line ("topo.txt:12: link 3: rate 'x' is not a number").
 * A message is one line: a control byte in it (quoted input text) is written "\xNN".
 * On success err is left untouched. The caller owns the tn_error (usually on
 * the stack); nothing is allocated. No function keeps state between calls.
 */
#ifndef TN_ERROR_H
#define TN_ERROR_H

#ifdef __cplusplus
extern "C"
{
#endif

    /** Status of a core call; TN_OK is zero so `if (status)` tests failure. */
    typedef enum tn_status
    {
        TN_OK = 0,
        TN_EINVAL,       /**< an argument or parameter is out of its domain */
        TN_ENOMEM,       /**< an allocation failed */
        TN_EIO,          /**< a file could not be opened, read or written */
        TN_EPARSE,       /**< malformed input text (file and line in the message) */
        TN_EUNSUPPORTED, /**< valid request that this algorithm/topology cannot serve */
        TN_EVERIFY,      /**< a schedule failed verification */
        TN_EDB           /**< the results database refused an operation */
    } tn_status;

    /** Size of the message buffer; longer messages are truncated, never overrun. */
#define TN_ERROR_MESSAGE_SIZE 512

    /** Error details filled by a failing call. */
    typedef struct tn_error
    {
        tn_status code;
        char message[TN_ERROR_MESSAGE_SIZE];
    } tn_error;

    /**
     * Fill err (if not NULL) with code and a printf-style message; returns code
     * so callers can write `return tn_error_set(err, TN_EINVAL, "...", ...);`.
     */
    tn_status tn_error_set(tn_error* err, tn_status code, const char* format, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

    /** Stable lowercase name of a status ("invalid argument", ...). */
    const char* tn_status_name(tn_status code);

#ifdef __cplusplus
}
#endif

#endif /* TN_ERROR_H */
