from enum import StrEnum

class ConnectFieldKind(StrEnum):
    EMAIL = "email"
    PASSWORD = "password"
    SELECT = "select"
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
