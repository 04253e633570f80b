from enum import StrEnum

class PresenceSignal(StrEnum):
    HOME_ADDRESS = "home-address"
    NETWORK_CONTROLLER = "network-controller"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
