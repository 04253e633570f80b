from enum import StrEnum

class Deterrent(StrEnum):
    DOG = "dog"
    VOICE = "voice"

    def __str__(self) -> str:
        return str(self.value)
