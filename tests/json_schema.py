"""A validator for the JSON Schema (draft 2020-12) subset docs/schema/ uses:
type (one name or a list), required, properties, additionalProperties (false),
items, enum, minimum, oneOf.  Python's standard library has no jsonschema;
this is enough to make an added, renamed or retyped field fail a test.
Any other keyword is refused, so that a schema cannot silently say more than
is checked ("description", "title", "$schema" and "$id" are annotations).

    python3 tests/json_schema.py SCHEMA.json OUTPUT.json   # exit 1 with the errors
    from json_schema import validate; errors = validate(schema, value)
"""
import json
import sys

ANNOTATIONS = {"description", "title", "$schema", "$id"}
KNOWN = ANNOTATIONS | {"type", "required", "properties", "additionalProperties", "items",
                       "enum", "minimum", "oneOf"}

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def validate(schema, value, path="$"):
    """The list of errors ("$.devices[0].name: ..."); empty when value is valid."""
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError("%s: schema keyword(s) not supported: %s" % (path, sorted(unknown)))
    errors = []
    if "oneOf" in schema:
        results = [validate(s, value, path) for s in schema["oneOf"]]
        ok = [r for r in results if not r]
        if len(ok) != 1:
            best = min(results, key=len) if not ok else []
            errors.append("%s: matches %d of the oneOf alternatives, not 1" % (path, len(ok)))
            errors.extend(best)
        return errors
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            return ["%s: %r is not of type %s" % (path, value, "/".join(types))]
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r is not one of %r" % (path, value, schema["enum"]))
    if "minimum" in schema and TYPES["number"](value) and value < schema["minimum"]:
        errors.append("%s: %r is below the minimum %r" % (path, value, schema["minimum"]))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: required field '%s' is missing" % (path, key))
        for key, v in value.items():
            if key in props:
                errors.extend(validate(props[key], v, "%s.%s" % (path, key)))
            elif schema.get("additionalProperties", True) is False:
                errors.append("%s: field '%s' is not in the schema" % (path, key))
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            errors.extend(validate(schema["items"], v, "%s[%d]" % (path, i)))
    return errors


def main(argv):
    if len(argv) != 3:
        print("usage: json_schema.py SCHEMA.json OUTPUT.json", file=sys.stderr)
        return 2
    schema = json.load(open(argv[1]))
    with open(argv[2]) as f:
        value = json.load(f)
    errors = validate(schema, value)
    for e in errors:
        print("%s: %s" % (argv[2], e))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
