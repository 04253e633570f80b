from enum import StrEnum

class ConnectResultType1Status(StrEnum):
    CHALLENGE = "challenge"

    def __str__(self) -> str:
        return str(self.value)
