from enum import StrEnum

class StepType3Kind(StrEnum):
    MUSIC = "music"

    def __str__(self) -> str:
        return str(self.value)
