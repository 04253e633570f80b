from enum import StrEnum

class StayState(StrEnum):
    CHECKED_OUT = "checked-out"
    INVITED = "invited"
    MEMBER = "member"

    def __str__(self) -> str:
        return str(self.value)
