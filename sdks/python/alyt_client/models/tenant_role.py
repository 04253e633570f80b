from enum import StrEnum

class TenantRole(StrEnum):
    ADMIN = "ADMIN"
    INSTALLER = "INSTALLER"

    def __str__(self) -> str:
        return str(self.value)
