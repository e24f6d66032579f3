"""Schemathesis checks of the HTTP API's own rules, loaded by OpenApiFuzzTest through SCHEMATHESIS_HOOKS=checks.

docs/http-api.md: every refusal is a 4xx whose body is RFC 9457 problem details (application/problem+json) saying what
went wrong ("detail", of a "type" of https://camelkubeflow.io/problems/) and where or what to do about it ("field",
"fix"); no answer is ever empty.
"""
import json

import schemathesis


@schemathesis.check
def refusal_is_problem_details_with_field_or_fix(ctx, response, case):
    """A 4xx answer is problem details: type, title, status (the answer's), a non-empty detail, a field or a fix."""
    status = response.status_code
    if not 400 <= status < 500:
        return None
    content_type = ";".join(response.headers.get("content-type", []))
    shown = response.content[:300]
    if "application/problem+json" not in content_type.lower():
        raise AssertionError(f"{status} answer is not problem details (Content-Type: {content_type or 'none'}):"
                             f" {shown!r}")
    try:
        body = json.loads(response.content)
    except ValueError as e:
        raise AssertionError(f"{status} answer does not parse as JSON ({e}): {shown!r}") from None
    if not isinstance(body, dict):
        raise AssertionError(f"{status} answer is not a JSON object: {shown!r}")
    if not isinstance(body.get("detail"), str) or not body["detail"].strip():
        raise AssertionError(f"{status} answer has no \"detail\" text: {shown!r}")
    if not str(body.get("type", "")).startswith("https://camelkubeflow.io/problems/") or body.get("status") != status:
        raise AssertionError(f"{status} answer has no problem type of the API or another status: {shown!r}")
    if not any(isinstance(body.get(key), str) and body[key].strip() for key in ("field", "fix")):
        raise AssertionError(f"{status} answer names neither a \"field\" nor a \"fix\": {shown!r}")
    return None
