"""Writing dbt files from the resolved project."""
