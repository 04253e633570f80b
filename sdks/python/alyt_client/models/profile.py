from enum import StrEnum

class Profile(StrEnum):
    CONTACT = "CONTACT"
    HUB = "HUB"
    LIGHT = "LIGHT"
    LOCK = "LOCK"
    MOTION = "MOTION"
    SENSOR = "SENSOR"
    SPEAKER = "SPEAKER"
    THERMOSTAT = "THERMOSTAT"

    def __str__(self) -> str:
        return str(self.value)
