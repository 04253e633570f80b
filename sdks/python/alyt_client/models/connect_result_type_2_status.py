from enum import StrEnum

class ConnectResultType2Status(StrEnum):
    REJECTED = "rejected"

    def __str__(self) -> str:
        return str(self.value)
