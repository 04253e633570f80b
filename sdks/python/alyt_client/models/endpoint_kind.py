from enum import StrEnum

class EndpointKind(StrEnum):
    LIGHT = "LIGHT"
    OTHER = "OTHER"
    SENSOR = "SENSOR"
    SPEAKER = "SPEAKER"

    def __str__(self) -> str:
        return str(self.value)
