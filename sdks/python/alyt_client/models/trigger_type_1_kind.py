from enum import StrEnum

class TriggerType1Kind(StrEnum):
    TIME = "time"

    def __str__(self) -> str:
        return str(self.value)
