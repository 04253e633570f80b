"""The package's version is the contract's, and it ships its types.

The contract (shared/api/contract/openapi.json, info.version) is the one
source of the SDK's version: pyproject.toml's [project] version must equal it,
so a breaking contract change is a new major SDK version. sdks/smoke/run
checks the same of the wheel it builds and installs
(importlib.metadata.version("alyt-sdk"))."""

import json
import tomllib
from pathlib import Path

HERE = Path(__file__).parents[1]
CONTRACT = HERE.parents[1] / "shared" / "api" / "contract" / "openapi.json"
PROJECT = tomllib.loads((HERE / "pyproject.toml").read_text())


def test_the_package_version_is_the_contracts():
    contract = json.loads(CONTRACT.read_text())["info"]["version"]
    assert PROJECT["project"]["version"] == contract, (
        "sdks/python/pyproject.toml's version differs from the contract's info.version"
    )


def test_both_packages_ship_a_pep_561_marker():
    assert "Typing :: Typed" in PROJECT["project"]["classifiers"]
    package_data = PROJECT["tool"]["setuptools"]["package-data"]
    for package in ("alyt_client", "alyt_sdk"):
        assert (HERE / package / "py.typed").is_file(), f"{package}/py.typed is missing"
        assert "py.typed" in package_data.get(package, []), f"{package}/py.typed is not package data"
