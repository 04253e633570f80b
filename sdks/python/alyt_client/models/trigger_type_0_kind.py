from enum import StrEnum

class TriggerType0Kind(StrEnum):
    MANUAL = "manual"

    def __str__(self) -> str:
        return str(self.value)
