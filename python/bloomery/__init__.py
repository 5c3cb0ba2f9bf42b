"""bloomery for dbt: the pre-compiler that turns data-quality specs into dbt files."""

__version__ = "0.1.0"
