"""alyt_client/ is what openapi-python-client makes of the committed
contract: regenerating it changes nothing (run sdks/python/regenerate after
a contract change), and the SDK's version is the contract's."""

import filecmp
import json
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).parents[1]
CONTRACT = HERE.parents[1] / "shared" / "api" / "contract" / "openapi.json"


def differences(left: Path, right: Path) -> list:
    comparison = filecmp.dircmp(left, right, ignore=["__pycache__"])
    found = [f"only in the committed client: {n}" for n in comparison.left_only]
    found += [f"only in the regenerated client: {n}" for n in comparison.right_only]
    found += [f"differs: {n}" for n in comparison.diff_files]
    for name in comparison.common_dirs:
        found += differences(left / name, right / name)
    return found


def test_the_generated_client_matches_the_committed_contract(tmp_path):
    generator = Path(sys.executable).parent / "openapi-python-client"
    subprocess.run(
        [str(generator), "generate", "--path", str(CONTRACT), "--config", str(HERE / "generator.yaml"),
         "--meta", "none", "--output-path", str(tmp_path / "alyt_client")],
        check=True, capture_output=True,
    )
    drift = differences(HERE / "alyt_client", tmp_path / "alyt_client")
    assert not drift, f"sdks/python/alyt_client drifted from the contract (run sdks/python/regenerate): {drift}"


def test_the_sdk_version_is_the_contracts():
    version = json.loads(CONTRACT.read_text())["info"]["version"]
    project = tomllib.loads((HERE / "pyproject.toml").read_text())
    assert project["project"]["version"] == version
