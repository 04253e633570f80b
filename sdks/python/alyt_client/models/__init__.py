""" Contains all the data models used in inputs/outputs """

from .accept_invitation_request import AcceptInvitationRequest
from .acknowledge_body import AcknowledgeBody
from .action_ref import ActionRef
from .action_result import ActionResult
from .action_value import ActionValue
from .add_member_request import AddMemberRequest
from .ai_declaration import AiDeclaration
from .app_token import AppToken
from .app_token_request import AppTokenRequest
from .applied_thing import AppliedThing
from .audit_entry import AuditEntry
from .authority_body import AuthorityBody
from .authority_choice import AuthorityChoice
from .available_action import AvailableAction
from .b_tree_map import BTreeMap
from .block_reason import BlockReason
from .blocking import Blocking
from .caller_kind import CallerKind
from .capability_catalogue import CapabilityCatalogue
from .capability_descriptor import CapabilityDescriptor
from .catalogue_definition import CatalogueDefinition
from .catalogue_definition_descriptor import CatalogueDefinitionDescriptor
from .challenge_answer import ChallengeAnswer
from .change_member_request import ChangeMemberRequest
from .change_password_request import ChangePasswordRequest
from .change_routine_body import ChangeRoutineBody
from .change_submission_request import ChangeSubmissionRequest
from .change_submission_request_descriptor_type_0 import ChangeSubmissionRequestDescriptorType0
from .choice_kind import ChoiceKind
from .claims import Claims
from .claims_clients import ClaimsClients
from .claims_tenants import ClaimsTenants
from .client_grant import ClientGrant
from .command_result_data import CommandResultData
from .command_result_event import CommandResultEvent
from .command_row import CommandRow
from .command_row_payload_type_0 import CommandRowPayloadType0
from .command_state import CommandState
from .connect_field import ConnectField
from .connect_field_kind import ConnectFieldKind
from .connect_field_option import ConnectFieldOption
from .connect_request import ConnectRequest
from .connect_result_type_0 import ConnectResultType0
from .connect_result_type_0_status import ConnectResultType0Status
from .connect_result_type_1 import ConnectResultType1
from .connect_result_type_1_status import ConnectResultType1Status
from .connect_result_type_2 import ConnectResultType2
from .connect_result_type_2_status import ConnectResultType2Status
from .connection import Connection
from .connection_examples import ConnectionExamples
from .connector import Connector
from .connector_with_token import ConnectorWithToken
from .control import Control
from .control_binding import ControlBinding
from .control_group import ControlGroup
from .control_option import ControlOption
from .creatable_kind import CreatableKind
from .create_connector_request import CreateConnectorRequest
from .create_invitation_request import CreateInvitationRequest
from .create_key_request import CreateKeyRequest
from .create_room_request import CreateRoomRequest
from .create_script_request import CreateScriptRequest
from .create_script_request_script import CreateScriptRequestScript
from .create_submission_request import CreateSubmissionRequest
from .create_submission_request_descriptor import CreateSubmissionRequestDescriptor
from .create_virtual_device_request import CreateVirtualDeviceRequest
from .create_webhook_request import CreateWebhookRequest
from .create_widget_token_request import CreateWidgetTokenRequest
from .dashboard import Dashboard
from .definition_author import DefinitionAuthor
from .delegation_body import DelegationBody
from .delegation_view import DelegationView
from .delivery_status import DeliveryStatus
from .destination_kind import DestinationKind
from .detached_virtual_device import DetachedVirtualDevice
from .deterrent import Deterrent
from .developer import Developer
from .developer_kind import DeveloperKind
from .developer_session import DeveloperSession
from .developer_status import DeveloperStatus
from .developer_type import DeveloperType
from .device import Device
from .device_capability import DeviceCapability
from .device_command import DeviceCommand
from .device_command_payload_type_0 import DeviceCommandPayloadType0
from .device_credentials_type_0 import DeviceCredentialsType0
from .device_credentials_type_0_kind import DeviceCredentialsType0Kind
from .device_credentials_type_1 import DeviceCredentialsType1
from .device_credentials_type_1_kind import DeviceCredentialsType1Kind
from .device_kind import DeviceKind
from .device_log_entry_view import DeviceLogEntryView
from .device_log_entry_view_payload import DeviceLogEntryViewPayload
from .device_offline_data import DeviceOfflineData
from .device_offline_event import DeviceOfflineEvent
from .device_online_data import DeviceOnlineData
from .device_online_event import DeviceOnlineEvent
from .device_settings import DeviceSettings
from .device_settings_by_capability import DeviceSettingsByCapability
from .device_status import DeviceStatus
from .device_telemetry_data import DeviceTelemetryData
from .device_telemetry_data_metrics import DeviceTelemetryDataMetrics
from .device_telemetry_event import DeviceTelemetryEvent
from .disabled_reason import DisabledReason
from .discover_request import DiscoverRequest
from .discovery_result import DiscoveryResult
from .effective_quota_view import EffectiveQuotaView
from .enable_webhook_request import EnableWebhookRequest
from .enabled import Enabled
from .endpoint import Endpoint
from .endpoint_capabilities_type_0 import EndpointCapabilitiesType0
from .endpoint_command_result import EndpointCommandResult
from .endpoint_kind import EndpointKind
from .endpoint_state import EndpointState
from .endpoint_status import EndpointStatus
from .endpoint_with_secret import EndpointWithSecret
from .event_bridge_request import EventBridgeRequest
from .event_bridge_view import EventBridgeView
from .event_kind import EventKind
from .event_type import EventType
from .event_type_example import EventTypeExample
from .event_type_schema import EventTypeSchema
from .firmware_channel import FirmwareChannel
from .forgot_password_request import ForgotPasswordRequest
from .get_async_api_response_200 import GetAsyncApiResponse200
from .get_open_api_response_200 import GetOpenApiResponse200
from .grant_status import GrantStatus
from .guest_checked_in_event import GuestCheckedInEvent
from .guest_checked_out_event import GuestCheckedOutEvent
from .guest_invited_event import GuestInvitedEvent
from .guest_stay import GuestStay
from .guest_stay_data import GuestStayData
from .house import House
from .household_role import HouseholdRole
from .hub_view import HubView
from .hub_view_protection_type_0 import HubViewProtectionType0
from .incident_view import IncidentView
from .integration import Integration
from .integration_account import IntegrationAccount
from .invitation import Invitation
from .invitation_outcome import InvitationOutcome
from .invitation_preview import InvitationPreview
from .invitation_result import InvitationResult
from .invited_home import InvitedHome
from .invited_stay import InvitedStay
from .inviter import Inviter
from .inviting_household import InvitingHousehold
from .issue_live_key_request import IssueLiveKeyRequest
from .key import Key
from .key_kind import KeyKind
from .key_usage import KeyUsage
from .key_with_secret import KeyWithSecret
from .kind_usage import KindUsage
from .list_device_telemetry_order import ListDeviceTelemetryOrder
from .list_response_audit_entry import ListResponseAuditEntry
from .list_response_catalogue_definition import ListResponseCatalogueDefinition
from .list_response_command_row import ListResponseCommandRow
from .list_response_connector import ListResponseConnector
from .list_response_developer import ListResponseDeveloper
from .list_response_device import ListResponseDevice
from .list_response_device_log_entry_view import ListResponseDeviceLogEntryView
from .list_response_endpoint import ListResponseEndpoint
from .list_response_event_type import ListResponseEventType
from .list_response_incident_view import ListResponseIncidentView
from .list_response_integration import ListResponseIntegration
from .list_response_invitation import ListResponseInvitation
from .list_response_key import ListResponseKey
from .list_response_member import ListResponseMember
from .list_response_notification import ListResponseNotification
from .list_response_property import ListResponseProperty
from .list_response_reviewed_submission import ListResponseReviewedSubmission
from .list_response_room_suggestion import ListResponseRoomSuggestion
from .list_response_room_view import ListResponseRoomView
from .list_response_routine import ListResponseRoutine
from .list_response_routine_run import ListResponseRoutineRun
from .list_response_sample_script import ListResponseSampleScript
from .list_response_script_run import ListResponseScriptRun
from .list_response_simulation_script import ListResponseSimulationScript
from .list_response_submission import ListResponseSubmission
from .list_response_telemetry_point_view import ListResponseTelemetryPointView
from .list_response_virtual_device import ListResponseVirtualDevice
from .list_response_webhook_delivery import ListResponseWebhookDelivery
from .list_response_webhook_endpoint import ListResponseWebhookEndpoint
from .liveness import Liveness
from .liveness_state import LivenessState
from .location import Location
from .lock_source_view import LockSourceView
from .login_request import LoginRequest
from .me_home import MeHome
from .me_response import MeResponse
from .member import Member
from .member_phone import MemberPhone
from .merge_failure import MergeFailure
from .merge_result import MergeResult
from .merge_rooms_request import MergeRoomsRequest
from .mfa_code_request import MfaCodeRequest
from .mfa_setup import MfaSetup
from .mode import Mode
from .mode_body import ModeBody
from .mode_readiness import ModeReadiness
from .music_account import MusicAccount
from .music_choice import MusicChoice
from .music_item import MusicItem
from .music_list import MusicList
from .music_speaker import MusicSpeaker
from .music_step import MusicStep
from .network_condition import NetworkCondition
from .notification import Notification
from .notification_raised_data import NotificationRaisedData
from .notification_raised_event import NotificationRaisedEvent
from .offline_reason import OfflineReason
from .output import Output
from .output_view import OutputView
from .overview import Overview
from .overview_property import OverviewProperty
from .patch_device_settings_request import PatchDeviceSettingsRequest
from .patch_device_settings_request_by_capability import PatchDeviceSettingsRequestByCapability
from .patch_endpoint_request import PatchEndpointRequest
from .patch_room_request import PatchRoomRequest
from .pending_state import PendingState
from .persona import Persona
from .phone import Phone
from .phone_list import PhoneList
from .pin_type_0 import PinType0
from .pin_type_0_kind import PinType0Kind
from .pin_type_1 import PinType1
from .pin_type_1_kind import PinType1Kind
from .pinned_thing import PinnedThing
from .pinned_thing_kind import PinnedThingKind
from .platform_role import PlatformRole
from .preferences import Preferences
from .presence_check import PresenceCheck
from .presence_signal import PresenceSignal
from .presented_as import PresentedAs
from .press_command import PressCommand
from .press_command_command import PressCommandCommand
from .press_command_payload import PressCommandPayload
from .primitive import Primitive
from .problem import Problem
from .profile import Profile
from .property_ import Property
from .protocol import Protocol
from .put_dashboard_request import PutDashboardRequest
from .put_guest_request import PutGuestRequest
from .put_quota_request import PutQuotaRequest
from .quota_defaults import QuotaDefaults
from .quota_kind import QuotaKind
from .quota_response import QuotaResponse
from .quota_source import QuotaSource
from .quota_value import QuotaValue
from .quota_window import QuotaWindow
from .readiness import Readiness
from .recover_webhook_request import RecoverWebhookRequest
from .recovery_status import RecoveryStatus
from .refresh_request import RefreshRequest
from .refresh_result import RefreshResult
from .register_device_request import RegisterDeviceRequest
from .registered_device import RegisteredDevice
from .replace_unit_request import ReplaceUnitRequest
from .reported import Reported
from .reset_password_request import ResetPasswordRequest
from .review_request import ReviewRequest
from .review_state import ReviewState
from .reviewed_submission import ReviewedSubmission
from .role_word import RoleWord
from .room_action import RoomAction
from .room_action_primitive import RoomActionPrimitive
from .room_suggestion import RoomSuggestion
from .room_view import RoomView
from .rotate_secret_request import RotateSecretRequest
from .rotated_credentials import RotatedCredentials
from .rotated_secret import RotatedSecret
from .routine import Routine
from .routine_music import RoutineMusic
from .routine_request import RoutineRequest
from .routine_run import RoutineRun
from .run_action_request import RunActionRequest
from .run_start_type_0 import RunStartType0
from .run_start_type_0_kind import RunStartType0Kind
from .run_start_type_1 import RunStartType1
from .run_start_type_1_kind import RunStartType1Kind
from .run_state import RunState
from .run_step import RunStep
from .run_thing import RunThing
from .sample_script import SampleScript
from .sample_script_script import SampleScriptScript
from .scenario import Scenario
from .scenario_view import ScenarioView
from .scope import Scope
from .script_run import ScriptRun
from .script_run_devices import ScriptRunDevices
from .script_run_status import ScriptRunStatus
from .search_type import SearchType
from .security_status import SecurityStatus
from .security_thing_view import SecurityThingView
from .selection import Selection
from .selection_body import SelectionBody
from .set_command import SetCommand
from .set_command_command import SetCommandCommand
from .set_command_payload import SetCommandPayload
from .set_scenario_request import SetScenarioRequest
from .settings_patch import SettingsPatch
from .settings_view import SettingsView
from .sign_up_accepted import SignUpAccepted
from .sign_up_request import SignUpRequest
from .sign_up_status import SignUpStatus
from .signal import Signal
from .signal_block import SignalBlock
from .simulation_script import SimulationScript
from .simulation_script_script import SimulationScriptScript
from .source_mode import SourceMode
from .speaker_system import SpeakerSystem
from .start_run_request import StartRunRequest
from .start_run_request_devices import StartRunRequestDevices
from .stay_state import StayState
from .step_outcome import StepOutcome
from .step_type_0 import StepType0
from .step_type_0_kind import StepType0Kind
from .step_type_1 import StepType1
from .step_type_1_kind import StepType1Kind
from .step_type_2 import StepType2
from .step_type_2_kind import StepType2Kind
from .step_type_3 import StepType3
from .step_type_3_kind import StepType3Kind
from .step_type_4 import StepType4
from .step_type_4_kind import StepType4Kind
from .submission import Submission
from .submission_descriptor import SubmissionDescriptor
from .submission_state_data import SubmissionStateData
from .submission_state_event import SubmissionStateEvent
from .surface import Surface
from .telemetry_point_view import TelemetryPointView
from .tenant_role import TenantRole
from .test_queued import TestQueued
from .thing import Thing
from .thing_category import ThingCategory
from .thing_command import ThingCommand
from .thing_kind import ThingKind
from .thing_outcome import ThingOutcome
from .thing_settings import ThingSettings
from .thing_state import ThingState
from .thing_state_data import ThingStateData
from .thing_state_data_state import ThingStateDataState
from .thing_state_event import ThingStateEvent
from .token_pair import TokenPair
from .token_type import TokenType
from .trigger_type_0 import TriggerType0
from .trigger_type_0_kind import TriggerType0Kind
from .trigger_type_1 import TriggerType1
from .trigger_type_1_kind import TriggerType1Kind
from .undeliverable_reason import UndeliverableReason
from .unit import Unit
from .update_webhook_request import UpdateWebhookRequest
from .usage_by_kind import UsageByKind
from .usage_response import UsageResponse
from .verify_email_request import VerifyEmailRequest
from .virtual_device import VirtualDevice
from .webhook_delivery import WebhookDelivery
from .webhook_endpoint import WebhookEndpoint
from .webhook_ping_data import WebhookPingData
from .webhook_ping_event import WebhookPingEvent
from .webhook_recovery import WebhookRecovery
from .weekday import Weekday
from .who_am_i import WhoAmI
from .widget_token import WidgetToken
from .widget_token_list import WidgetTokenList

__all__ = (
    "AcceptInvitationRequest",
    "AcknowledgeBody",
    "ActionRef",
    "ActionResult",
    "ActionValue",
    "AddMemberRequest",
    "AiDeclaration",
    "AppliedThing",
    "AppToken",
    "AppTokenRequest",
    "AuditEntry",
    "AuthorityBody",
    "AuthorityChoice",
    "AvailableAction",
    "Blocking",
    "BlockReason",
    "BTreeMap",
    "CallerKind",
    "CapabilityCatalogue",
    "CapabilityDescriptor",
    "CatalogueDefinition",
    "CatalogueDefinitionDescriptor",
    "ChallengeAnswer",
    "ChangeMemberRequest",
    "ChangePasswordRequest",
    "ChangeRoutineBody",
    "ChangeSubmissionRequest",
    "ChangeSubmissionRequestDescriptorType0",
    "ChoiceKind",
    "Claims",
    "ClaimsClients",
    "ClaimsTenants",
    "ClientGrant",
    "CommandResultData",
    "CommandResultEvent",
    "CommandRow",
    "CommandRowPayloadType0",
    "CommandState",
    "ConnectField",
    "ConnectFieldKind",
    "ConnectFieldOption",
    "Connection",
    "ConnectionExamples",
    "Connector",
    "ConnectorWithToken",
    "ConnectRequest",
    "ConnectResultType0",
    "ConnectResultType0Status",
    "ConnectResultType1",
    "ConnectResultType1Status",
    "ConnectResultType2",
    "ConnectResultType2Status",
    "Control",
    "ControlBinding",
    "ControlGroup",
    "ControlOption",
    "CreatableKind",
    "CreateConnectorRequest",
    "CreateInvitationRequest",
    "CreateKeyRequest",
    "CreateRoomRequest",
    "CreateScriptRequest",
    "CreateScriptRequestScript",
    "CreateSubmissionRequest",
    "CreateSubmissionRequestDescriptor",
    "CreateVirtualDeviceRequest",
    "CreateWebhookRequest",
    "CreateWidgetTokenRequest",
    "Dashboard",
    "DefinitionAuthor",
    "DelegationBody",
    "DelegationView",
    "DeliveryStatus",
    "DestinationKind",
    "DetachedVirtualDevice",
    "Deterrent",
    "Developer",
    "DeveloperKind",
    "DeveloperSession",
    "DeveloperStatus",
    "DeveloperType",
    "Device",
    "DeviceCapability",
    "DeviceCommand",
    "DeviceCommandPayloadType0",
    "DeviceCredentialsType0",
    "DeviceCredentialsType0Kind",
    "DeviceCredentialsType1",
    "DeviceCredentialsType1Kind",
    "DeviceKind",
    "DeviceLogEntryView",
    "DeviceLogEntryViewPayload",
    "DeviceOfflineData",
    "DeviceOfflineEvent",
    "DeviceOnlineData",
    "DeviceOnlineEvent",
    "DeviceSettings",
    "DeviceSettingsByCapability",
    "DeviceStatus",
    "DeviceTelemetryData",
    "DeviceTelemetryDataMetrics",
    "DeviceTelemetryEvent",
    "DisabledReason",
    "DiscoverRequest",
    "DiscoveryResult",
    "EffectiveQuotaView",
    "Enabled",
    "EnableWebhookRequest",
    "Endpoint",
    "EndpointCapabilitiesType0",
    "EndpointCommandResult",
    "EndpointKind",
    "EndpointState",
    "EndpointStatus",
    "EndpointWithSecret",
    "EventBridgeRequest",
    "EventBridgeView",
    "EventKind",
    "EventType",
    "EventTypeExample",
    "EventTypeSchema",
    "FirmwareChannel",
    "ForgotPasswordRequest",
    "GetAsyncApiResponse200",
    "GetOpenApiResponse200",
    "GrantStatus",
    "GuestCheckedInEvent",
    "GuestCheckedOutEvent",
    "GuestInvitedEvent",
    "GuestStay",
    "GuestStayData",
    "House",
    "HouseholdRole",
    "HubView",
    "HubViewProtectionType0",
    "IncidentView",
    "Integration",
    "IntegrationAccount",
    "Invitation",
    "InvitationOutcome",
    "InvitationPreview",
    "InvitationResult",
    "InvitedHome",
    "InvitedStay",
    "Inviter",
    "InvitingHousehold",
    "IssueLiveKeyRequest",
    "Key",
    "KeyKind",
    "KeyUsage",
    "KeyWithSecret",
    "KindUsage",
    "ListDeviceTelemetryOrder",
    "ListResponseAuditEntry",
    "ListResponseCatalogueDefinition",
    "ListResponseCommandRow",
    "ListResponseConnector",
    "ListResponseDeveloper",
    "ListResponseDevice",
    "ListResponseDeviceLogEntryView",
    "ListResponseEndpoint",
    "ListResponseEventType",
    "ListResponseIncidentView",
    "ListResponseIntegration",
    "ListResponseInvitation",
    "ListResponseKey",
    "ListResponseMember",
    "ListResponseNotification",
    "ListResponseProperty",
    "ListResponseReviewedSubmission",
    "ListResponseRoomSuggestion",
    "ListResponseRoomView",
    "ListResponseRoutine",
    "ListResponseRoutineRun",
    "ListResponseSampleScript",
    "ListResponseScriptRun",
    "ListResponseSimulationScript",
    "ListResponseSubmission",
    "ListResponseTelemetryPointView",
    "ListResponseVirtualDevice",
    "ListResponseWebhookDelivery",
    "ListResponseWebhookEndpoint",
    "Liveness",
    "LivenessState",
    "Location",
    "LockSourceView",
    "LoginRequest",
    "MeHome",
    "Member",
    "MemberPhone",
    "MeResponse",
    "MergeFailure",
    "MergeResult",
    "MergeRoomsRequest",
    "MfaCodeRequest",
    "MfaSetup",
    "Mode",
    "ModeBody",
    "ModeReadiness",
    "MusicAccount",
    "MusicChoice",
    "MusicItem",
    "MusicList",
    "MusicSpeaker",
    "MusicStep",
    "NetworkCondition",
    "Notification",
    "NotificationRaisedData",
    "NotificationRaisedEvent",
    "OfflineReason",
    "Output",
    "OutputView",
    "Overview",
    "OverviewProperty",
    "PatchDeviceSettingsRequest",
    "PatchDeviceSettingsRequestByCapability",
    "PatchEndpointRequest",
    "PatchRoomRequest",
    "PendingState",
    "Persona",
    "Phone",
    "PhoneList",
    "PinnedThing",
    "PinnedThingKind",
    "PinType0",
    "PinType0Kind",
    "PinType1",
    "PinType1Kind",
    "PlatformRole",
    "Preferences",
    "PresenceCheck",
    "PresenceSignal",
    "PresentedAs",
    "PressCommand",
    "PressCommandCommand",
    "PressCommandPayload",
    "Primitive",
    "Problem",
    "Profile",
    "Property",
    "Protocol",
    "PutDashboardRequest",
    "PutGuestRequest",
    "PutQuotaRequest",
    "QuotaDefaults",
    "QuotaKind",
    "QuotaResponse",
    "QuotaSource",
    "QuotaValue",
    "QuotaWindow",
    "Readiness",
    "RecoverWebhookRequest",
    "RecoveryStatus",
    "RefreshRequest",
    "RefreshResult",
    "RegisterDeviceRequest",
    "RegisteredDevice",
    "ReplaceUnitRequest",
    "Reported",
    "ResetPasswordRequest",
    "ReviewedSubmission",
    "ReviewRequest",
    "ReviewState",
    "RoleWord",
    "RoomAction",
    "RoomActionPrimitive",
    "RoomSuggestion",
    "RoomView",
    "RotatedCredentials",
    "RotatedSecret",
    "RotateSecretRequest",
    "Routine",
    "RoutineMusic",
    "RoutineRequest",
    "RoutineRun",
    "RunActionRequest",
    "RunStartType0",
    "RunStartType0Kind",
    "RunStartType1",
    "RunStartType1Kind",
    "RunState",
    "RunStep",
    "RunThing",
    "SampleScript",
    "SampleScriptScript",
    "Scenario",
    "ScenarioView",
    "Scope",
    "ScriptRun",
    "ScriptRunDevices",
    "ScriptRunStatus",
    "SearchType",
    "SecurityStatus",
    "SecurityThingView",
    "Selection",
    "SelectionBody",
    "SetCommand",
    "SetCommandCommand",
    "SetCommandPayload",
    "SetScenarioRequest",
    "SettingsPatch",
    "SettingsView",
    "Signal",
    "SignalBlock",
    "SignUpAccepted",
    "SignUpRequest",
    "SignUpStatus",
    "SimulationScript",
    "SimulationScriptScript",
    "SourceMode",
    "SpeakerSystem",
    "StartRunRequest",
    "StartRunRequestDevices",
    "StayState",
    "StepOutcome",
    "StepType0",
    "StepType0Kind",
    "StepType1",
    "StepType1Kind",
    "StepType2",
    "StepType2Kind",
    "StepType3",
    "StepType3Kind",
    "StepType4",
    "StepType4Kind",
    "Submission",
    "SubmissionDescriptor",
    "SubmissionStateData",
    "SubmissionStateEvent",
    "Surface",
    "TelemetryPointView",
    "TenantRole",
    "TestQueued",
    "Thing",
    "ThingCategory",
    "ThingCommand",
    "ThingKind",
    "ThingOutcome",
    "ThingSettings",
    "ThingState",
    "ThingStateData",
    "ThingStateDataState",
    "ThingStateEvent",
    "TokenPair",
    "TokenType",
    "TriggerType0",
    "TriggerType0Kind",
    "TriggerType1",
    "TriggerType1Kind",
    "UndeliverableReason",
    "Unit",
    "UpdateWebhookRequest",
    "UsageByKind",
    "UsageResponse",
    "VerifyEmailRequest",
    "VirtualDevice",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookPingData",
    "WebhookPingEvent",
    "WebhookRecovery",
    "Weekday",
    "WhoAmI",
    "WidgetToken",
    "WidgetTokenList",
)
