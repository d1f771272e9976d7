// PgOutputDecoder: the bytes of one pgoutput message (the payload of a replication 'w' frame,
// or a row of pg_logical_slot_get_binary_changes) into a PgOutputMessage.
#pragma once

#include <string_view>

#include "base/result.h"
#include "base/status.h"
#include "sources/postgres/pgoutput_message.h"

namespace cdclake::sources::postgres {

/// Decodes one message at a time. It keeps the one piece of state the format needs: whether it
/// is inside a stream block (S ... E), where R, Y, I, U, D, T and M carry the transaction id
/// first. The decoded message views `message`'s bytes.
class PgOutputDecoder {
 public:
  /// A message that does not follow the format is kCorrupt, naming its kind, the byte offset
  /// and what was expected; a kind cdclake does not ask for (two-phase messages) is
  /// kNotSupported.
  Result<PgOutputMessage> Decode(std::string_view message);

  bool in_stream() const { return in_stream_; }

 private:
  bool in_stream_ = false;
};

}  // namespace cdclake::sources::postgres
