"""Schemathesis hooks for scripts/schemathesis.sh: the upload body's media
type, application/x-go-sgf, goes on the wire as UTF-8 text (the OpenAPI
document declares it as a string)."""

import schemathesis


@schemathesis.serializer("application/x-go-sgf")
def sgf(ctx, value):
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8")
