/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tn-error.h"

#include <stdarg.h>
#include <stdio.h>

tn_status
tn_error_set(tn_error* err, tn_status code, const char* format, ...)
{
    if (err)
    {
        va_list args;
        va_start(args, format);
        err->code = code;
        vsnprintf(err->message, sizeof(err->message), format, args);
        va_end(args);
    }
    return code;
}

const char*
tn_status_name(tn_status code)
{
    switch (code)
    {
    case TN_OK:
        return "ok";
    case TN_EINVAL:
        return "invalid argument";
    case TN_ENOMEM:
        return "out of memory";
    case TN_EIO:
        return "input/output error";
    case TN_EPARSE:
        return "parse error";
    case TN_EUNSUPPORTED:
        return "unsupported";
    case TN_EVERIFY:
        return "verification failed";
    case TN_EDB:
        return "database error";
    }
    return "unknown status";
}
