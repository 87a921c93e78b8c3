/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PREDICATE_CHECKER_H
#define PREDICATE_CHECKER_H

#include "ns3/attribute.h"
#include "ns3/ptr.h"

#include <functional>
#include <string>
#include <utility>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief An attribute checker that accepts the values of type Value a predicate accepts, so
 * that a bad value is refused where it is given (a program's option, Config::SetDefault, a
 * scenario key through AttributeSettings) in one line naming what is valid, instead of
 * reaching an invariant of the model later.
 *
 * \tparam Value the attribute's value class (StringValue, DataRateValue, ...)
 * \tparam BaseChecker the checker class of Value (StringChecker, DataRateChecker, ...): the
 *         one AttributeSettings recognises to read the text strictly first
 * \tparam Created the value class Create() makes: Value, or a subclass of it that parses
 *         differently (one that never aborts on text ns-3's own parser aborts on)
 */
template <class Value, class BaseChecker, class Created = Value>
class PredicateChecker : public BaseChecker
{
  public:
    /**
     * \param typeName the value's TypeId name ("ns3::StringValue")
     * \param accept true for a valid value
     * \param describe the valid values in words (read when a value is refused, so a list that
     *        grows after the attribute is registered is named whole)
     */
    PredicateChecker(std::string typeName,
                     std::function<bool(const Value&)> accept,
                     std::function<std::string()> describe)
        : m_typeName(std::move(typeName)),
          m_accept(std::move(accept)),
          m_describe(std::move(describe))
    {
    }

    bool Check(const AttributeValue& value) const override
    {
        const auto* v = dynamic_cast<const Value*>(&value);
        return v != nullptr && m_accept(*v);
    }

    std::string GetValueTypeName() const override
    {
        return m_typeName;
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return true;
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return m_describe();
    }

    Ptr<AttributeValue> Create() const override
    {
        return ns3::Create<Created>();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        const auto* src = dynamic_cast<const Value*>(&source);
        auto* dst = dynamic_cast<Value*>(&destination);
        if (src == nullptr || dst == nullptr)
        {
            return false;
        }
        *dst = *src;
        return true;
    }

  private:
    std::string m_typeName;                     //!< the value's TypeId name
    std::function<bool(const Value&)> m_accept; //!< the predicate
    std::function<std::string()> m_describe;    //!< the valid values in words
};

/**
 * \return a PredicateChecker (see there for the parameters)
 */
template <class Value, class BaseChecker, class Created = Value>
Ptr<const AttributeChecker>
MakePredicateChecker(std::string typeName,
                     std::function<bool(const Value&)> accept,
                     std::function<std::string()> describe)
{
    return Create<PredicateChecker<Value, BaseChecker, Created>>(std::move(typeName),
                                                                 std::move(accept),
                                                                 std::move(describe));
}

} // namespace ns3

#endif // PREDICATE_CHECKER_H
