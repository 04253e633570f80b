from enum import StrEnum

class ThingKind(StrEnum):
    DEVICE = "device"
    ENDPOINT = "endpoint"

    def __str__(self) -> str:
        return str(self.value)
