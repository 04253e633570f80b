from enum import StrEnum

class StepType2Kind(StrEnum):
    DELAY = "delay"

    def __str__(self) -> str:
        return str(self.value)
