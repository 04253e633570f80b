from enum import StrEnum

class Scenario(StrEnum):
    BURST = "BURST"
    FLAPPING = "FLAPPING"
    LOW_BATTERY = "LOW_BATTERY"
    NORMAL = "NORMAL"
    OFFLINE = "OFFLINE"
    SENSOR_ERROR = "SENSOR_ERROR"
    SLOW = "SLOW"

    def __str__(self) -> str:
        return str(self.value)
