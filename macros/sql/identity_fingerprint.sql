{#- An order-independent fingerprint of the identities a group of rows holds: an aggregate over
    `columns` (SQL expressions of one identity) that two groups share when they hold the same
    identities, each as many times, in whatever order. The conservation audit compares it per
    bronze load between the places a delivery can be, and joins row by row only the loads whose
    fingerprints differ (the technique data-diff uses to compare tables by checksum ranges).

    A sum of 64-bit hashes, exact (never overflowing: summed as a 38-digit integer where the
    engine's sum of a 64-bit integer would wrap or raise). Both sides of a comparison hash the
    same typed columns, so the engine's own hash of a typed value serves. No ISO form: each
    engine spells its hash (macros/adapters/<engine>/sql.sql). -#}
{% macro identity_fingerprint(columns) -%}
  {{ return(adapter.dispatch('identity_fingerprint', 'bloomery')(columns)) }}
{%- endmacro %}

{% macro default__identity_fingerprint(columns) -%}{{ bloomery.no_portable_form("identity_fingerprint", "a 64-bit hash of a row of values") }}{%- endmacro %}
