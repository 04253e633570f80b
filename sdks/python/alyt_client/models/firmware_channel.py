from enum import StrEnum

class FirmwareChannel(StrEnum):
    BETA = "BETA"
    STABLE = "STABLE"

    def __str__(self) -> str:
        return str(self.value)
