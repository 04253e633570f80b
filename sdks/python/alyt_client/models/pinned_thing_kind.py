from enum import StrEnum

class PinnedThingKind(StrEnum):
    DEVICE = "device"
    ENDPOINT = "endpoint"

    def __str__(self) -> str:
        return str(self.value)
