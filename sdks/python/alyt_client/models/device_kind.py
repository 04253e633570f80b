from enum import StrEnum

class DeviceKind(StrEnum):
    AGENT = "AGENT"
    HUB = "HUB"
    OTHER = "OTHER"
    SENSOR = "SENSOR"
    VOICE_SATELLITE = "VOICE_SATELLITE"

    def __str__(self) -> str:
        return str(self.value)
