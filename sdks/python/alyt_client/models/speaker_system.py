from enum import StrEnum

class SpeakerSystem(StrEnum):
    CLOUD = "cloud"
    LOCAL = "local"

    def __str__(self) -> str:
        return str(self.value)
