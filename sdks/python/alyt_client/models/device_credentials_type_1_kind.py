from enum import StrEnum

class DeviceCredentialsType1Kind(StrEnum):
    CERTIFICATE = "certificate"

    def __str__(self) -> str:
        return str(self.value)
