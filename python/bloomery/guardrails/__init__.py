"""Guardrails: limits and checks decidable from a spec value alone, before any SQL is written.

Pure functions over spec values (charsets, regex sizes, comparison bounds); the resolve stages
call them and turn their refusals into located errors. Nothing here imports resolve/.
"""
