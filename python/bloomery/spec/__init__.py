"""Reading spec files: YAML with locations, document kinds, schema validation, the spec model."""
