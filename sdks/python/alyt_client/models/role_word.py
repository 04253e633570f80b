from enum import StrEnum

class RoleWord(StrEnum):
    GUEST = "guest"
    MEMBER = "member"
    OWNER = "owner"

    def __str__(self) -> str:
        return str(self.value)
