/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ATTRIBUTE_SETTINGS_H
#define ATTRIBUTE_SETTINGS_H

#include "ns3/attribute.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief The one check of an ns-3 attribute or global value given as text by a user (command
 * line --ns3::Type::Attribute=value, scenario [roce] and [npu] keys, HPCC config keys).
 *
 * Several of ns-3's own parsers abort the program on malformed text instead of failing:
 * UintegerValue and IntegerValue on "1e309" or "abc", DataRateValue and TimeValue on text with
 * a space or an unknown unit, QueueSizeValue on a bad unit. Each check below first reads the
 * text strictly for the value types it knows (whole number, real number, time, data rate,
 * boolean: the whole text, no space, finite, within the type's range) and only then asks the
 * attribute's checker. A value of any other type is tried by the checker in a child process,
 * so an abort there is a refusal, not the end of the program. On failure *why says what is
 * wrong: "'VALUE' is not a valid value for ns3::Type::Attribute (expected ...)", the value
 * shortened when long.
 */
class AttributeSettings
{
  public:
    /**
     * \param fullName "ns3::Type::Attribute"
     * \param value the text
     * \param why set on failure (the attribute's name, what is wrong, its valid values)
     * \return true when Config::SetDefault(fullName, StringValue(value)) is safe and succeeds
     */
    static bool CheckDefault(const std::string& fullName,
                             const std::string& value,
                             std::string* why);

    /**
     * Same for a type and one of its attributes by short name. An obsolete attribute
     * (TypeId::OBSOLETE, e.g. ns3::RdmaNic::DcqcnG) is refused with its support message, which
     * names where it went.
     * \param typeName "ns3::Type" \param attribute its attribute \param value the text
     * \param why set on failure \return true when valid and settable at construction
     */
    static bool Check(const std::string& typeName,
                      const std::string& attribute,
                      const std::string& value,
                      std::string* why);

    /**
     * A global value (RngSeed, RngRun, SchedulerType, ...); RngSeed must also be one
     * ns-3's generator accepts (1 to MAX_SEED).
     * \param name its name \param value the text \param why set on failure
     * \return true when GlobalValue::Bind(name, StringValue(value)) is safe and succeeds
     */
    static bool CheckGlobal(const std::string& name, const std::string& value, std::string* why);

    /**
     * The value check alone.
     * \param checker the attribute's checker \param value the text
     * \param expected set on failure: what a valid value looks like
     * \return true when valid
     */
    static bool CheckValue(Ptr<const AttributeChecker> checker,
                           const std::string& value,
                           std::string* expected);

    /** The largest seed ns-3's generator accepts (MRG32k3a: 2^32 - 22853 - 1). */
    static constexpr uint64_t MAX_SEED = 4294944442u;

    /** Values longer than this are shown shortened in messages. */
    static constexpr size_t MAX_QUOTED = 80;

    /**
     * \param text a user's value \return it in quotes, shortened to MAX_QUOTED characters
     * ("...(N more bytes)") so one error stays one readable line
     */
    static std::string Quote(const std::string& text);

    /**
     * What a new object of a type would be made with: "Name=value" for each attribute the
     * type itself declares (not its parents'), settable at construction and not obsolete or
     * deprecated, in declaration order, joined by spaces. The values are the defaults of this
     * moment, so Config::SetDefault and --ns3::Type::Name=value on the command line show.
     * \param tid the type
     * \param names only these attributes, in this order (empty: all of them)
     * \return the text; "" when the type declares none
     */
    static std::string DescribeDefaults(TypeId tid, const std::vector<std::string>& names = {});
};

/**
 * \ingroup training-net
 * \brief Attribute defaults (Config::SetDefault) set for the life of the object, the previous
 * ones restored when it goes.
 *
 * Switch MMUs are created by RoceSwitch's constructor with defaults, so a run's switch
 * settings can only be defaults, and they must not leak into the next simulation of the same
 * process (the test runner, a sweep run in one process).
 */
class ScopedDefaults
{
  public:
    ScopedDefaults() = default;
    ~ScopedDefaults();
    ScopedDefaults(const ScopedDefaults&) = delete;
    ScopedDefaults& operator=(const ScopedDefaults&) = delete;

    /**
     * \param fullName "ns3::Type::Attribute" \param value the text
     * \param why set on failure (AttributeSettings::CheckDefault)
     * \return false if the attribute does not exist or refuses the value (nothing set)
     */
    bool Set(const std::string& fullName, const std::string& value, std::string* why = nullptr);

  private:
    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_saved; //!< name, previous
};

} // namespace ns3

#endif // ATTRIBUTE_SETTINGS_H
