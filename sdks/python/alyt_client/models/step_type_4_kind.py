from enum import StrEnum

class StepType4Kind(StrEnum):
    SECURITY = "security"

    def __str__(self) -> str:
        return str(self.value)
