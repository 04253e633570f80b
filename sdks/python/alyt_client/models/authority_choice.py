from enum import StrEnum

class AuthorityChoice(StrEnum):
    BUILTIN = "builtin"
    CONNECTOR = "connector"

    def __str__(self) -> str:
        return str(self.value)
