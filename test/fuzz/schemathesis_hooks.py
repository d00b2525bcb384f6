"""Schemathesis hooks for the api fuzz test (api-fuzz.test.ts loads them with SCHEMATHESIS_HOOKS)."""

import graphql
import schemathesis
from hypothesis import strategies as st
from schemathesis.graphql import nodes


def _object(fields: dict) -> graphql.ObjectValueNode:
    return nodes.Object([graphql.ObjectFieldNode(name=graphql.NameNode(value=name), value=value) for name, value in fields.items()])


# The JSON scalar (setSetting's value) takes any JSON value, written as a GraphQL literal.
_json_leaves = st.one_of(
    st.text().map(nodes.String),
    st.integers(min_value=-(2**63), max_value=2**63).map(nodes.Int),
    st.floats(allow_nan=False, allow_infinity=False).map(nodes.Float),
    st.booleans().map(nodes.Boolean),
    st.just(nodes.Null),
)
schemathesis.graphql.scalar(
    "JSON",
    st.recursive(
        _json_leaves,
        lambda children: st.one_of(
            st.lists(children, max_size=4).map(nodes.List),
            st.dictionaries(st.from_regex(r"\A[_A-Za-z][_0-9A-Za-z]{0,15}\Z"), children, max_size=4).map(_object),
        ),
        max_leaves=8,
    ),
)


@schemathesis.check
def no_server_failure(ctx, response, case):
    """A 5xx, or a GraphQL error the api reports as its own failure (code INTERNAL, even beside data)."""
    if response.status_code >= 500:
        raise AssertionError(f"the api answered {response.status_code}")
    try:
        body = response.json()
    except ValueError:
        return
    errors = body.get("errors") if isinstance(body, dict) else None
    for error in errors if isinstance(errors, list) else []:
        extensions = error.get("extensions") if isinstance(error, dict) else None
        if isinstance(extensions, dict) and extensions.get("code") == "INTERNAL":
            raise AssertionError(f"a GraphQL error with code INTERNAL: {error.get('message')}")
