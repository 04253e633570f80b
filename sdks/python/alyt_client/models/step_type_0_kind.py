from enum import StrEnum

class StepType0Kind(StrEnum):
    THING = "thing"

    def __str__(self) -> str:
        return str(self.value)
