from enum import StrEnum

class DeveloperType(StrEnum):
    BRAND = "BRAND"
    INDIVIDUAL = "INDIVIDUAL"
    INTEGRATOR = "INTEGRATOR"

    def __str__(self) -> str:
        return str(self.value)
