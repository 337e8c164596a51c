"""Helpers the tests share (imported as tests.support.x); the fixtures are in fixtures.py."""
