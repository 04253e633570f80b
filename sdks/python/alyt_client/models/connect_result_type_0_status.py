from enum import StrEnum

class ConnectResultType0Status(StrEnum):
    CONNECTED = "connected"

    def __str__(self) -> str:
        return str(self.value)
