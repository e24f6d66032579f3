"""Schemathesis checks of the HTTP API's own rules, loaded by OpenApiFuzzTest through SCHEMATHESIS_HOOKS=checks.

docs/http-api.md: every refusal is a 4xx whose body is JSON naming what went wrong ("error") and where or what to
do about it ("field", "fix"); no answer is ever empty.
"""
import json

import schemathesis


@schemathesis.check
def refusal_is_json_with_error_and_field_or_fix(ctx, response, case):
    """A 4xx answer is a JSON object with a non-empty "error" text and a "field" or a "fix" text."""
    status = response.status_code
    if not 400 <= status < 500:
        return None
    content_type = ";".join(response.headers.get("content-type", []))
    shown = response.content[:300]
    if "json" not in content_type.lower():
        raise AssertionError(f"{status} answer is not JSON (Content-Type: {content_type or 'none'}): {shown!r}")
    try:
        body = json.loads(response.content)
    except ValueError as e:
        raise AssertionError(f"{status} answer does not parse as JSON ({e}): {shown!r}") from None
    if not isinstance(body, dict):
        raise AssertionError(f"{status} answer is not a JSON object: {shown!r}")
    if not isinstance(body.get("error"), str) or not body["error"].strip():
        raise AssertionError(f"{status} answer has no \"error\" text: {shown!r}")
    if not any(isinstance(body.get(key), str) and body[key].strip() for key in ("field", "fix")):
        raise AssertionError(f"{status} answer names neither a \"field\" nor a \"fix\": {shown!r}")
    return None
