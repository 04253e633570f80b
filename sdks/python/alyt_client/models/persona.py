from enum import StrEnum

class Persona(StrEnum):
    CLIENT = "client"
    INSTALLER = "installer"
    PLATFORM = "platform"
    TENANT = "tenant"

    def __str__(self) -> str:
        return str(self.value)
