from e2e.fixtures import maid_server  # noqa: F401
