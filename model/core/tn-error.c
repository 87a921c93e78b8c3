/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tn-error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Control bytes of a message written \xNN: a message quotes input text, and a byte such as
 * 0x1d or a newline from a malformed file would split its one error line. */
static void
tn_error_escape(char* message, size_t size)
{
    char out[TN_ERROR_MESSAGE_SIZE];
    size_t n = 0;
    for (const char* c = message; *c && n + 1 < sizeof(out); c++)
    {
        const unsigned char b = (unsigned char)*c;
        if (b >= 0x20 && b != 0x7f)
        {
            out[n++] = *c;
        }
        else if (n + 4 < sizeof(out))
        {
            n += (size_t)snprintf(out + n, sizeof(out) - n, "\\x%02x", b);
        }
        else
        {
            break;
        }
    }
    out[n] = '\0';
    memcpy(message, out, n + 1 < size ? n + 1 : size);
}

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
        tn_error_escape(err->message, sizeof(err->message));
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
