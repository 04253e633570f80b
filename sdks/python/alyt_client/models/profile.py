from enum import StrEnum

class Profile(StrEnum):
    HUB = "HUB"
    LIGHT = "LIGHT"
    SENSOR = "SENSOR"
    SPEAKER = "SPEAKER"
    THERMOSTAT = "THERMOSTAT"

    def __str__(self) -> str:
        return str(self.value)
