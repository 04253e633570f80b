"""infra/check_template.py refuses the test-only settings in a deployed
stack's environments."""

import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import check_template  # noqa: E402
from cfnlint.decode import decode  # noqa: E402

TEMPLATE, _ = decode(str(check_template.TEMPLATE))


def problems_of(template):
    check_template.problems.clear()
    check_template.check_test_only_settings(template)
    found = list(check_template.problems)
    check_template.problems.clear()
    return found


def test_the_committed_template_sets_no_test_only_setting():
    assert problems_of(TEMPLATE) == []


@pytest.mark.parametrize("name", check_template.TEST_ONLY_SETTINGS)
def test_a_test_only_setting_in_a_function_is_refused_naming_the_function(name):
    template = copy.deepcopy(TEMPLATE)
    template["Resources"]["WebhooksFunction"]["Properties"]["Environment"]["Variables"][name] = "on"
    assert problems_of(template) == [f"WebhooksFunction sets {name}, a setting for tests and the emulated region only"]


def test_in_the_globals_and_in_the_simulator_task_too():
    template = copy.deepcopy(TEMPLATE)
    template["Globals"]["Function"]["Environment"]["Variables"]["ALYT_WEBHOOKS_PRIVATE_NETWORKS"] = "on"
    (container,) = template["Resources"]["SimulatorTaskDefinition"]["Properties"]["ContainerDefinitions"]
    container["Environment"].append({"Name": "ALYT_IOT_MQTT_ADDRESS", "Value": "127.0.0.1:1883"})
    assert problems_of(template) == [
        "Globals.Function sets ALYT_WEBHOOKS_PRIVATE_NETWORKS, a setting for tests and the emulated region only",
        f"SimulatorTaskDefinition.{container['Name']} sets ALYT_IOT_MQTT_ADDRESS, a setting for tests and the emulated region only",
    ]
