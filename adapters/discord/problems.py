"""What went wrong with Discord, in sentences that say what to do next."""

from __future__ import annotations

import asyncio

import aiohttp
import discord

from adapters.discord.config import DiscordConfig
from bridge import ConfigError, DeliveryError


def bad_token(config: DiscordConfig) -> str:
    return (f"Discord refused the bot token in ${config.token_env}; copy a fresh one from the "
            "Developer Portal (your application → Bot → Reset Token) and export it.")


def start_problem(exc: BaseException | None, config: DiscordConfig) -> Exception:
    if isinstance(exc, discord.LoginFailure):
        return ConfigError(bad_token(config))
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return ConfigError(
            "[discord] text_replies = true needs the Message Content intent: enable it in the "
            "Developer Portal (your application → Bot → Privileged Gateway Intents), or set "
            "text_replies = false.")
    return ConfigError(f"The Discord connection ended while starting ({type(exc).__name__}); "
                       "check [discord] api_base and gateway_url.")


async def whoami(config: DiscordConfig, token: str) -> str:
    """`askbridge doctor`: whose the token is (GET users/@me), or a `DeliveryError` saying why not."""
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        user = await http.static_login(token)
    except discord.LoginFailure:
        raise DeliveryError(bad_token(config)) from None
    except discord.HTTPException as exc:
        raise DeliveryError(f"Discord answered HTTP {exc.status} to users/@me; check "
                            "[discord] api_base and try again.") from None
    except (aiohttp.ClientError, OSError) as exc:
        raise DeliveryError(f"Discord could not be reached at {config.api_base} "
                            f"({type(exc).__name__}); check the network.") from None
    finally:
        await http.close()
    return f"Discord bot {user['username']}"
