from enum import StrEnum

class DeviceCredentialsType0Kind(StrEnum):
    PASSWORD = "password"

    def __str__(self) -> str:
        return str(self.value)
