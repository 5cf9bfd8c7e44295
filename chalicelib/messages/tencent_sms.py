"""SMS in mainland China by Tencent Cloud SMS, through its SDK (tencentcloud-sdk-python-sms: ~0.6 MB beside the
requests the package already carries). The platform's signature (签名) and each template's approved id are
configuration; the SDK's own endpoint setting points it elsewhere (the local stand-in, scripts/message_standins.py)."""
from __future__ import annotations

from .port import Outcome, Report, unreachable
from .record import Message
from .templates import language, ordered

# Refusals a retry cannot change (Tencent Cloud's error codes): the number, the template, the signature.
_PERMANENT = ("InvalidParameterValue.IncorrectPhoneNumber", "FailedOperation.TemplateIncorrectOrUnapproved",
              "FailedOperation.SignatureIncorrectOrUnapproved", "FailedOperation.PhoneNumberInBlacklist",
              "InvalidParameterValue.TemplateParameterFormatError", "UnsupportedOperation.", "AuthFailure.")


class TencentSms:
    name = "tencent_sms"

    def __init__(self, config: dict):
        self.config = config

    def _client(self):
        from tencentcloud.common import credential
        from tencentcloud.common.profile.client_profile import ClientProfile
        from tencentcloud.common.profile.http_profile import HttpProfile
        from tencentcloud.sms.v20210111 import sms_client
        c = self.config
        http = HttpProfile(endpoint=c.get("endpoint") or "sms.tencentcloudapi.com", protocol=c.get("protocol"),
                           reqTimeout=int(c.get("timeout_s", 5)))
        return sms_client.SmsClient(credential.Credential(c["secret_id"], c["secret_key"]),
                                    c.get("region", "ap-guangzhou"), ClientProfile(httpProfile=http))

    def send(self, message: Message, text: str) -> Outcome:
        from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException
        from tencentcloud.sms.v20210111 import models
        template = template_id(self.config, message)
        if template is None:
            return Outcome(self.name, error="no_template", permanent=True)
        request = models.SendSmsRequest()
        request.PhoneNumberSet = ["+86" + message.to]
        request.SmsSdkAppId = self.config["sdk_app_id"]
        request.SignName = self.config["sign_name"]
        request.TemplateId = template
        request.TemplateParamSet = ordered(message.kind, message.params)
        request.SessionContext = message.id
        try:
            status = self._client().SendSms(request).SendStatusSet[0]
        except TencentCloudSDKException as exc:
            code = exc.get_code() or ""
            if code.startswith(_PERMANENT):
                return Outcome(self.name, error="refused", permanent=True)
            return Outcome(self.name, error="rate_limited" if code.startswith("LimitExceeded") else "unavailable")
        except (OSError, ValueError, KeyError, IndexError):
            return unreachable(self.name)
        if status.Code != "Ok":
            limited = status.Code.startswith("LimitExceeded")
            return Outcome(self.name, error="rate_limited" if limited else "refused", permanent=not limited)
        return Outcome(self.name, provider_id=status.SerialNo)


    def reports(self) -> list[Report]:
        """The delivery reports Tencent Cloud holds for the app since the last pull (PullSmsSendStatus)."""
        from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException
        from tencentcloud.sms.v20210111 import models
        request = models.PullSmsSendStatusRequest()
        request.SmsSdkAppId, request.Limit = self.config["sdk_app_id"], 100
        try:
            got = self._client().PullSmsSendStatus(request).PullSmsSendStatusSet or []
        except (TencentCloudSDKException, OSError, ValueError):
            return []     # pulled again at the next pass
        return [Report(self.name, r.SerialNo, r.ReportStatus == "SUCCESS") for r in got]


def template_id(config: dict, message: Message) -> str | None:
    """The approved template of this kind in the message's language (a domestic template for zh-CN; en and vi
    ones where approved), else the zh-CN one."""
    codes = (config.get("templates") or {}).get(message.kind)
    if isinstance(codes, dict):
        return codes.get(language(message.lang)) or codes.get("zh-CN")
    return codes
