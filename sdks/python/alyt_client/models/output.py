from enum import StrEnum

class Output(StrEnum):
    LIGHT = "light"
    SIREN = "siren"
    SPEAKER = "speaker"

    def __str__(self) -> str:
        return str(self.value)
